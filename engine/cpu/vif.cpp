// placeholder: vif (being written)
