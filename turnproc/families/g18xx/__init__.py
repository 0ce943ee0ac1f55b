"""The 18xx family: a general sequential 18xx engine and its titles as data.

Titles' rights stay with their designers and publishers (18MS and 18GA: Mark
Derrick); see each title's README.
"""
