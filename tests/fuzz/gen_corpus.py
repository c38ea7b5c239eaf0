#!/usr/bin/env python3
"""gen_corpus.py - write the committed seed corpus, tests/fuzz/corpus/<target>/.

Tiny hand-made inputs, valid and near-valid, so libFuzzer starts inside
each format instead of guessing magic numbers and header names. Nothing
here comes from a real data set. Deterministic (gzip mtime 0), so running
it again changes nothing; make fuzz never writes to these directories (its
finds go to build/fuzz/corpus/). Run from anywhere: python3 gen_corpus.py
"""
import gzip
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, mtime=0)


# ---- IDX: big-endian magic 0x00000803 (images, 3 dims) / 0x00000801 (labels)
def images(n, h, w):
    return struct.pack(">IIII", 0x803, n, h, w) + bytes((i * 37) & 0xFF for i in range(n * h * w))


def labels(vals):
    return struct.pack(">II", 0x801, len(vals)) + bytes(vals)


put("idx", "images_2x3x3", images(2, 3, 3))
put("idx", "images_1x4x4.gz", gz(images(1, 4, 4)))
put("idx", "labels_5", labels([0, 1, 2, 3, 9]))
put("idx", "labels_3.gz", gz(labels([7, 8, 9])))
put("idx", "labels_bad_value", labels([1, 10]))
put("idx", "images_truncated", images(2, 3, 3)[:-8])
put("idx", "images_trailing_byte", images(1, 2, 2) + b"\0")
put("idx", "images_absurd_dims", struct.pack(">IIII", 0x803, 0xFFFFFFFF, 28, 28))
put("idx", "images_truncated.gz", gz(images(1, 4, 4))[:-6])
put("idx", "labels_header_only", struct.pack(">I", 0x801))

# ---- CIFAR-10: records of 1 label byte + 3072 pixel bytes
def record(label, k):
    return bytes([label]) + bytes((i * k + label) & 0xFF for i in range(3072))


put("cifar", "one_record", record(3, 5))
put("cifar", "two_records", record(0, 1) + record(9, 7))
put("cifar", "bad_label", record(10, 3))
put("cifar", "short_record", record(1, 2)[:-1])
put("cifar", "record_plus_one", record(1, 2) + b"\x01")

# ---- SDSS DR14 SkyServer CSV (the reader picks u,g,r,i,z,class,redshift by name)
HEAD = "objid,ra,dec,u,g,r,i,z,run,rerun,camcol,field,specobjid,class,redshift,plate,mjd,fiberid"
ROWS = [
    "1237648704577142822,183.53,0.089,19.47,17.04,15.95,15.50,15.22,752,301,4,267,3.72e18,STAR,-8.96e-06,3306,54922,491",
    "1237648704577207341,183.60,0.135,18.66,17.21,16.67,16.49,16.39,752,301,4,267,3.64e17,GALAXY,0.123,323,51615,541",
    "1237648704577273923,183.68,0.126,19.38,18.19,17.47,17.09,16.80,752,301,4,268,3.23e17,QSO,1.42,287,52023,513",
    "1237648704577338514,183.87,0.049,17.76,16.02,15.16,14.77,14.54,752,301,4,269,3.72e18,GALAXY,0.0591,3306,54922,512",
    "1237648704577339453,183.88,0.102,20.12,19.79,19.42,19.21,19.12,752,301,4,269,3.64e17,QSO,2.05,324,51666,594",
]
put("sdss", "valid_lf.csv", HEAD + "\n" + "\n".join(ROWS) + "\n")
put("sdss", "valid_crlf.csv", HEAD + "\r\n" + "\r\n".join(ROWS) + "\r\n")
put("sdss", "reordered_quoted.csv",
    'class,redshift,z,i,r,g,u\n"STAR",0.0,15.2,15.5,15.9,17.0,19.4\ngalaxy,1.2E-1,16.3,16.4,16.6,17.2,18.6\n')
put("sdss", "short_row.csv", HEAD + "\n" + ROWS[0] + "\n" + ROWS[1].rsplit(",", 2)[0] + "\n")
put("sdss", "bad_number.csv", HEAD + "\n" + ROWS[0].replace("19.47", "19.4x") + "\n")
put("sdss", "unknown_class.csv", HEAD + "\n" + ROWS[0].replace("STAR", "PLANET") + "\n")
put("sdss", "missing_column.csv", HEAD.replace(",redshift", ",zz") + "\n" + ROWS[0] + "\n")
put("sdss", "header_only.csv", HEAD + "\n")
put("sdss", "nul_byte.csv", HEAD + "\n" + ROWS[0] + "\n\0" + ROWS[1] + "\n")

# ---- results CSV, as table_write writes it (core/results/csv.c)
META = "# program: lab1\n# git: 0123456789ab\n# seed: 1\n# summary: real MNIST, 1 rank on 2 cores, cpu, quick profile, seed 1\n"
put("results_csv", "lab_table.csv",
    META + "iter,epoch,loss,accuracy\n0,0,2.3025851,0.1\n100,0,0.41,0.87\n200,1,,0.93\n")
put("results_csv", "quoted_cells.csv",
    '# note:\nmodel,comment\nmlp,"a, b"\ncnn3,"say ""hi"""\n"#x","two\nlines"\nvgg11,"cr\r\nlf"\n')
put("results_csv", "one_column_empty.csv", "v\n1\n\"\"\n3\n")
put("results_csv", "crlf.csv", "# k: v\r\na,b\r\n1,2\r\n\r\n3,4\r\n")
put("results_csv", "unterminated_quote.csv", "a,b\n1,\"open\n")
put("results_csv", "duplicate_column.csv", "a,b,a\n1,2,3\n")
put("results_csv", "field_count.csv", "a,b\n1,2,3\n")
put("results_csv", "meta_only.csv", "# program: x\n# summary: y\n")

# ---- CLI: arguments separated by newlines (or NUL bytes); options of
# tests/fuzz/cli.c's table
put("cli", "all_types",
    "--n\n5\n--ranged=7\n--x\n0.5\n--frac=0.3\n--name\nabc\n--by=q\n--flag\n--verbose\n--bytes=64k\n--bucket\n1M\n--seed\n42\n")
put("cli", "nul_separated", "--ranged\0" "1000\0--bytes\0" "2G\0--x=-1e-3\0")
put("cli", "help", "--x=1\n--help\n")
put("cli", "out_of_range", "--ranged=0\n--bucket=512\n")
put("cli", "bad_values", "--bytes=1X\n--seed=-1\n--n=99999999999\n--x=nan\n")
put("cli", "flag_with_value", "--flag=1\n")
put("cli", "unknown_and_positional", "--nope\nfile.txt\n")
put("cli", "missing_value", "--name")

# ---- checkpoint (core/results/checkpoint.h): magic, u32 version, u32
# sections, per section u16 name length + name + u64 length + bytes, u32
# CRC-32 of all before it
import zlib


def ckpt(sections, version=1, fix_crc=True):
    body = b"DDLCKPT\n" + struct.pack("<II", version, len(sections))
    for name, data in sections:
        body += struct.pack("<H", len(name)) + name.encode() + struct.pack("<Q", len(data)) + data
    crc = zlib.crc32(body) & 0xFFFFFFFF if fix_crc else 0
    return body + struct.pack("<I", crc)


def table(cols, rows):
    out = struct.pack("<II", len(cols), len(rows))
    for c in cols:
        out += c.encode() + b"\0"
    for r in rows:
        for cell in r:
            out += cell.encode() + b"\0"
    return out


SETTINGS = b"program lab1 \nranks 1\nsync none\n--model cnn3\n--lr 0.05\n\0"
put("checkpoint", "small_run", ckpt([
    ("settings", SETTINGS),
    ("driver.state", struct.pack("<qiid d", 40, 1, 1, 0.5, 0.1)),
    ("model.params", struct.pack("<4f", 0.1, -0.2, 0.3, 0.0)),
    ("model.step", struct.pack("<Q", 40)),
    ("lab.iters", table(["a", "b"], [["0", "2.30"], ["1", ""]])),
]))
put("checkpoint", "empty", ckpt([]))
put("checkpoint", "table_only", ckpt([("lab.t", table(["a", "b"], [["x", "y"]]))]))
put("checkpoint", "other_version", ckpt([("settings", SETTINGS)], version=2))
put("checkpoint", "bad_crc", ckpt([("settings", SETTINGS)], fix_crc=False))
put("checkpoint", "truncated", ckpt([("model.params", b"\0" * 32)])[:-9])
