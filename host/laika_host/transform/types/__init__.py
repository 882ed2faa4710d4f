"""The transform types, one module per family; `catalog.py` gathers them."""
