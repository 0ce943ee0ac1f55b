"""Game families hosted by turnproc besides Continental Rails."""
