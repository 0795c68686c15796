"""`python -m bench`: run every benchmark in turn and print its figures."""

from __future__ import annotations

from . import foundation

BENCHES = (foundation,)


def main() -> None:
    for bench in BENCHES:
        bench.main()
        print()


if __name__ == "__main__":
    main()
