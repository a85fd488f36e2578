// placeholder: motion (being written)
