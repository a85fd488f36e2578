// placeholder: psnr (being written)
