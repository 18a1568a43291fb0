#!/usr/bin/env python3
# The seed 004 script (../shared/seeds/004_*.txt), unchanged in every line that draws a random
# number, computes a count or formats a line; the plots are left out (matplotlib is not needed)
# and the output can be limited to a range of minutes. Run it with TZ=America/Sao_Paulo.
#
#   seed004_reference.py counts                      one line per minute: "minute,lines"
#   seed004_reference.py write LOGDIR A B            writes minutes [A, B) as the script does,
#                                                    drawing (and discarding) every line before A
#   seed004_reference.py write LOGDIR A B STATEFILE  starts at minute A from a Mersenne Twister
#                                                    state written by logbench (625 ints a line)
#   seed004_reference.py tally OUTDIR A B            the exact answers for minutes [A, B): lines
#                                                    per status and per path per hour and per day
#                                                    (the script's draws, no line formatted)
import pandas as pd
import math
import os
import random
import datetime
import sys
import numpy as np

random.seed(8)

status_codes = [200, 304, 500, 408, 404, 302]
status_codes += [s for s in status_codes for i in range(random.randint(10,50))]
# dummy_weight
paths = [f"page{i}" for i in range(0, 300)]
paths += [p for p in random.sample(paths, 20) for i in range(random.randint(10,50))]

series = []
variance = 0
start = datetime.datetime(2021,5,1)
for i in range(310):
    variance += (random.random() - 0.5)/10
    val = math.cos(i/10) + variance
    series.append(abs(val) * random.randint(8,40)*1000)

# oversample to millisecond granularity
# 31days * 24hours * 60minutes = 44640
arr = [float('nan') for i in range(44640)]
for idx,v in enumerate(series):
    arr[idx*144] = v
ts_start = datetime.datetime(2021,5,1).timestamp()
x = [datetime.datetime.fromtimestamp(ts_start+60*i) for i in range(len(arr))]
df = pd.DataFrame({"x": x, "y": arr})
df['y'] = df['y'].interpolate(method='linear')
df['y'] = df['y'].astype(int)

mode = sys.argv[1]
if mode == "counts":
    out = sys.stdout
    for idx, v in enumerate(df['y'].values):
        out.write(f"{idx},{v}\n")
    sys.exit(0)

if mode == "tally":
    # The script's line loop with only what decides a line's status and path: its v lines per
    # minute, each random.choice(status_codes) then random.choice(paths), in the script's order;
    # times and text are left out (they draw nothing). Every line before minute A is drawn too.
    import collections
    outdir = sys.argv[2]
    first, last = int(sys.argv[3]), int(sys.argv[4])
    choice = random.choice
    windows = {"1h": collections.defaultdict(collections.Counter),
               "1d": collections.defaultdict(collections.Counter)}
    for idx, v in enumerate(df['y'].values):
        if idx >= last:
            break
        if idx < first:
            for _ in range(v):
                choice(status_codes)
                choice(paths)
            continue
        dstart = datetime.datetime(2021,5,1) + datetime.timedelta(minutes=idx)
        pairs = collections.Counter([(choice(status_codes), choice(paths)) for _ in range(v)])
        windows["1h"][dstart.replace(minute=0)].update(pairs)
        windows["1d"][dstart.replace(hour=0, minute=0)].update(pairs)
    if not os.path.exists(outdir):
        os.mkdir(outdir)
    # every key in every window, zeros included: statuses ascending, paths as the script lists them
    keys = {"status": (0, sorted(set(status_codes))), "path": (1, paths[:300])}
    for name, (at, values) in keys.items():
        for size, counts in windows.items():
            with open(f"{outdir}/{name}-{size}.csv", "w") as f:
                f.write("window_start,key,count\n")
                for start in sorted(counts):
                    per = collections.Counter()
                    for pair, n in counts[start].items():
                        per[pair[at]] += n
                    label = start.astimezone().isoformat()
                    for value in values:
                        f.write(f"{label},{value},{per[value]}\n")
    sys.exit(0)

logdir = sys.argv[2]
first, last = int(sys.argv[3]), int(sys.argv[4])
if len(sys.argv) > 5:
    with open(sys.argv[5]) as f:
        words = [int(w) for w in f.read().split()]
    random.setstate((3, tuple(words), None))
    skip = first
else:
    skip = 0
if not os.path.exists(logdir):
    os.mkdir(logdir)

for idx,v in enumerate(df['y'].values):
    if idx < skip:
        continue
    if idx >= last:
        break
    if idx < first:
        for _ in range(v):
            random.choice(status_codes)
            random.choice(paths)
        continue
    row = []
    dstart = datetime.datetime(2021,5,1) + datetime.timedelta(minutes=idx)
    dstart = dstart
    filename = logdir + "/" + dstart.strftime("%Y-%m-%d.log")
    dstart = float(dstart.timestamp()*1000)
    t = np.linspace(0, 59, v) * 1000
    for i in t:
        ts = int(dstart+i)
        ds = datetime.datetime.fromtimestamp(ts/1000.0)
        datefmt = ds.strftime("[%d/%b/%Y:%H:%M:%S.%f")[:-3] + " -0300]"
        status_code = random.choice(status_codes)
        path = random.choice(paths)
        row.append(f"{{ \"time\":\"{datefmt}\", \"path\":\"{path}\", \"status\":\"{status_code}\" }}")
    if os.path.exists(filename):
        with open(filename, "a+") as f:
            f.write("\n")
    with open(filename, "a+") as f:
        f.write("\n".join(row))
