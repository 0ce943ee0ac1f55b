"""The games' web pages (`turnproc web`, docs/web.md): app.py serves them."""
