"""One module per `pyshim` subcommand, each with configure(parser) and run(args) -> int."""
