"""turnproc: a play-by-email turn processor for railroad stock-market games."""

__version__ = "0.1.0"
