"""Mail: inbound intake (stdin, Maildir, IMAP) and outbound sending from the outbox.

Nothing here decides game matters: inbound messages are handed to the intake
layer, outbound messages come from the outbox the batch wrote.
"""
