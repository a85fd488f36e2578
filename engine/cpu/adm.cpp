// placeholder: adm (being written)
