"""Colours shared by the maps and the charts.

`PALETTE`: distinct colours, well apart from each other, from a base map's
greys and from the magenta a map gives to what is for sale; a map gives them
to its railroads in railroad-number order, the web's charts to players in
position order (so a player keeps his colour on every chart).
"""

PALETTE = (
    "#d62728",
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#ff7f0e",
    "#17becf",
    "#7f7f00",
    "#000080",
    "#800000",
    "#008080",
    "#6a3d9a",
    "#b15928",
    "#a6761d",
)
