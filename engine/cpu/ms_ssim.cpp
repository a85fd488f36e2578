// placeholder: ms_ssim (being written)
