// placeholder: ssim (being written)
