"""The player commands that come by mail, one module per command family:
turnsheets and 18xx moves (sheets), HELP and RULES (guide), STANDBY
(standby), RESEND (resend), PRESS (press), CONTACT (contact). Each works on a
`letter.Letter`, the stored message on its way to a verdict; the router that
reads the header and authenticates a player once is mail/inbound.py."""
