"""Clean a CSV file: python clean.py INPUT OUTPUT."""
import re
import sys

import pandas as pd

MISSING = ["", "N/A", "n/a", "NA", "-", "null"]


def snake(name: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z]+", "_", name.strip()).strip("_")
    return name.lower() or "column"


def main(src: str, dst: str) -> None:
    df = pd.read_csv(src, sep=None, engine="python", na_values=MISSING, encoding_errors="replace")
    before = len(df)
    df.columns = [snake(c) for c in df.columns]
    df = df.apply(lambda s: s.str.strip() if s.dtype == "object" else s)
    df = df.drop_duplicates()
    df.to_csv(dst, index=False)
    print(f"rows: {before} -> {len(df)}")
    print(df.isna().sum().to_string())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
