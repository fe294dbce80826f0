#!/usr/bin/env python3
"""Counts what Cutpoint's hostile-input and damage tests try, from their sources.

Each @Test is one case; a @ParameterizedTest counts its @CsvSource rows or @ValueSource values;
a @RepeatedTest(n) counts n; a @FuzzTest counts as one target, plus its committed inputs; a jqwik
@Property counts as one property (it tries 1,000 generated inputs per run). Run from the
repository root: python3 src/build/count-hostile-tests.py
"""
import glob
import os
import re

CLASSES = [
    # storage: damaged values, SST blocks and files, full disk, crashes, damaged bytes fuzzed
    "storage/src/test/java/io/cutpoint/storage/CorruptionTest.java",
    "storage/src/test/java/io/cutpoint/storage/SstDamageTest.java",
    "storage/src/test/java/io/cutpoint/storage/UnreadableTableFileTest.java",
    "storage/src/test/java/io/cutpoint/storage/StoreRepairTest.java",
    "storage/src/test/java/io/cutpoint/storage/FullDiskTest.java",
    "storage/src/test/java/io/cutpoint/storage/CrashRecoveryTest.java",
    "storage/src/test/java/io/cutpoint/storage/StoreReadersFuzzTest.java",
    "storage/src/test/java/io/cutpoint/storage/ContentChunksContract.java",
    # server: hostile workers and clients, damaged stores under a running coordinator
    "server/src/test/java/io/cutpoint/server/limits/*Test.java",
    "server/src/test/java/io/cutpoint/server/security/*Test.java",
    "server/src/test/java/io/cutpoint/server/fuzz/*Test.java",
    "server/src/test/java/io/cutpoint/server/grpc/InterleavedUploadsTest.java",
    "server/src/test/java/io/cutpoint/server/grpc/ContentUploadTest.java",
    "server/src/test/java/io/cutpoint/server/rollback/LocalRecoveryTest.java",
    "server/src/test/java/io/cutpoint/server/rollback/DamagedSstRollbackTest.java",
    "server/src/test/java/io/cutpoint/server/FullDiskHealthTest.java",
    "server/src/test/java/io/cutpoint/server/e2e/SnapshotsEndToEndTest.java",
    # client: forged frames, fuzzed worker input
    "client/src/test/java/io/cutpoint/client/ForgedFrameTest.java",
    "client/src/test/java/io/cutpoint/client/*FuzzTest.java",
    "client/src/test/java/io/cutpoint/client/engine/*FuzzTest.java",
    # ops: store commands, damaged snapshots shown, coordinator crashes
    "ops/src/test/java/io/cutpoint/ops/store/StoreCommandTest.java",
    "ops/src/test/java/io/cutpoint/ops/admin/DamagedSnapshotViewTest.java",
    "ops/src/test/java/io/cutpoint/ops/crash/CrashRecoveryTest.java",
]


def annotation_args(text, start):
    """The text inside the parentheses that open at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return ""


def count(path):
    text = open(path, encoding="utf-8").read()
    cases = fuzz = props = 0
    for m in re.finditer(r"@(Test|ParameterizedTest|RepeatedTest|FuzzTest|Property)\b", text):
        kind = m.group(1)
        if kind == "Test":
            cases += 1
        elif kind == "FuzzTest":
            fuzz += 1
        elif kind == "Property":
            props += 1
        elif kind == "RepeatedTest":
            cases += int(re.match(r"\((?:value\s*=\s*)?(\d+)", text[m.end():]).group(1))
        else:
            rest = text[m.end():]
            src = re.search(r"@(CsvSource|ValueSource)\s*\(", rest)
            nxt = re.search(r"\bvoid\s+\w+\s*\(", rest)
            if src and (not nxt or src.start() < nxt.start()):
                args = annotation_args(rest, src.end() - 1)
                if src.group(1) == "CsvSource":
                    cases += len(re.findall(r'"(?:[^"\\]|\\.)*"', args))
                else:
                    body = args[args.index("{") + 1:args.rindex("}")] if "{" in args else args
                    body = re.sub(r"^\s*\w+\s*=\s*", "", body)
                    cases += len([v for v in body.split(",") if v.strip()])
            else:
                raise SystemExit(f"{path}: a @ParameterizedTest without @CsvSource/@ValueSource")
    inputs = 0
    corpus = path.replace("/java/", "/resources/").replace(".java", "Inputs")
    if os.path.isdir(corpus):
        inputs = sum(len(files) for _, _, files in os.walk(corpus))
    return cases, fuzz, inputs, props


total = [0, 0, 0, 0]
for pattern in CLASSES:
    for path in sorted(glob.glob(pattern)):
        c = count(path)
        total = [a + b for a, b in zip(total, c)]
        print(f"{os.path.basename(path)[:-5]:40} cases {c[0]:3}  fuzz targets {c[1]}  "
              f"committed inputs {c[2]:3}  properties {c[3]}")
print(f"{'TOTAL':40} cases {total[0]:3}  fuzz targets {total[1]}  "
      f"committed inputs {total[2]:3}  properties {total[3]}")
