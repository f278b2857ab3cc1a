#!/usr/bin/env python3
"""Regenerate the TPC-H sample data with tpchgen-cli (pip install tpchgen-cli).

    python sample-data/generate.py            # scale factor 0.01, what the repository ships
    python sample-data/generate.py -s 1       # about 1 GB, into sample-data/tpch

Writes the eight tables as Parquet files (``tpch/<table>.parquet``, the standard TPC-H column names:
``c_custkey``, ``o_totalprice``, ...) and ``customer.csv`` with the column names the product
documentation's tutorial uses (``custkey``, ``name``, ...). ``aistor-lab sample-data load`` puts
them in the service.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-s", "--scale-factor", default="0.01", help="TPC-H scale factor (default 0.01)")
    parser.add_argument("--output-dir", type=Path, default=HERE, help="where tpch/ and customer.csv go")
    args = parser.parse_args()

    tpch = args.output_dir / "tpch"
    shutil.rmtree(tpch, ignore_errors=True)
    tpchgen = shutil.which("tpchgen-cli") or str(Path(sys.executable).parent / "tpchgen-cli")
    subprocess.run([tpchgen, "parquet", "--scale-factor", args.scale_factor, "--compression", "ZSTD(9)",
                    "--output-dir", str(tpch)], check=True)

    # The tutorial's CSV names columns without the TPC-H prefix (c_custkey -> custkey).
    customer = pq.read_table(tpch / "customer.parquet")
    customer = customer.rename_columns([name.split("_", 1)[1] for name in customer.column_names])
    plain_strings = pa.schema([pa.field(f.name, pa.string()) if f.type == pa.string_view() else f
                               for f in customer.schema])
    pacsv.write_csv(customer.cast(plain_strings), args.output_dir / "customer.csv")
    print(f"TPC-H at scale factor {args.scale_factor} in {tpch}, customer.csv in {args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
