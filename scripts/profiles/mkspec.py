"""mkspec.py SPEC STUDY OUT 'axis=[v,...];axis2=[..]' : copy STUDY's block of
experiments/SPEC.toml (same name, seed, problem, algorithm, privacy) with its grid cut to the
given points and repetitions = 2."""
import sys, tomllib, json
spec, study, out, cut = sys.argv[1:5]
t = tomllib.load(open(f"experiments/{spec}.toml", "rb"))
s = [x for x in t["studies"] if x["name"] == study][0]
def v(x):
    if isinstance(x, bool): return "true" if x else "false"
    if isinstance(x, (int, float)): return repr(x)
    if isinstance(x, str): return json.dumps(x, ensure_ascii=False)
    if isinstance(x, list): return "[" + ", ".join(v(y) for y in x) + "]"
    if isinstance(x, dict): return "{ " + ", ".join(f"{k} = {v(y)}" for k, y in x.items()) + " }"
    raise TypeError(x)
grid = dict(s["grid"])
for part in cut.split(";"):
    if part.strip():
        k, val = part.split("=", 1)
        grid[k.strip()] = json.loads(val)
lines = [f"# Profiling scratch spec (scripts/profiles/mkspec.py): {spec}.toml study {study}, its most expensive grid point(s), 2 repetitions.",
         f"# Run: bash scripts/profile_study.sh scripts/profiles/{study}.toml",
         f"name = {v(t['name'])}", f"seed = {v(t['seed'])}", "repetitions = 2"]
if "privacy" in t: lines.append(f"privacy = {v(t['privacy'])}")
lines += ["", "[[studies]]"]
for k, x in s.items():
    if k in ("expect", "headline", "claims", "worst_case_over", "repetitions", "grid"): continue
    lines.append(f"{k} = {v(x)}")
lines.append("repetitions = 2")
lines.append(f"grid = {v(grid)}")
open(out, "w").write("\n".join(lines) + "\n")
