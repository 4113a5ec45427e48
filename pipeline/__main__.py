"""``python -m pipeline``: the ``census`` command without its console script."""

from pipeline.cli.main import main

if __name__ == "__main__":
    main(prog_name="census")
