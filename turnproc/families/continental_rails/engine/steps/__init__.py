"""One module per phase of the turn (Appendix C); `resolve` calls them in order."""
