"""The PTX front end: text -> ir.Module (lexer, recursive-descent parser, and the checks of
what ptxas refuses)."""
