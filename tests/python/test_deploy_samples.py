# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The deployment samples of docs/scaling.md, checked for syntax without
network or cluster: deploy/k8s-pipeline.yaml (JSON-compatible YAML: read
with the json module, and with PyYAML too where it imports, which must
read the same) and deploy/gst-cudagraph@.service (a systemd template
unit: sections and keys known, values of the kinds systemd takes; where
systemd-analyze exists, its verify must not complain either).  Each
sample's cross-references hold: labels and selectors, volumes and
mounts, the ConfigMap keys the command reads, the GPU asked of NVIDIA's
device plugin, the NVDEC capability.  Standard library only."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MANIFEST = os.path.join(ROOT, "deploy", "k8s-pipeline.yaml")
UNIT = os.path.join(ROOT, "deploy", "gst-cudagraph@.service")

faults = []


def check(ok, what):
    if not ok:
        faults.append(what)
    return ok


# --- the Kubernetes manifest ------------------------------------------------

def load_manifest(path):
    """The manifest's object: YAML comments (whole lines) dropped, the rest
    JSON.  PyYAML, when there is one, must read the same object."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = "".join(line for line in text.splitlines(True)
                   if not line.lstrip().startswith("#"))
    doc = json.loads(body)
    try:
        import yaml
    except ImportError:
        return doc
    check(yaml.safe_load(text) == doc, "PyYAML reads another object")
    return doc


def check_object(obj, where):
    for key in ("apiVersion", "kind", "metadata"):
        check(key in obj, "%s: no %s" % (where, key))
    name = obj.get("metadata", {}).get("name", "")
    # RFC 1123 names, as the API server asks.
    check(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name or "")
          is not None and len(name) <= 63, "%s: bad name %r" % (where, name))


def check_container(c, volumes, config, replicas, where):
    check(c.get("image"), "%s: no image" % where)
    limits = c.get("resources", {}).get("limits", {})
    gpus = limits.get("nvidia.com/gpu")
    check(isinstance(gpus, int) and gpus >= 1,
          "%s: no whole nvidia.com/gpu limit" % where)
    env = {e.get("name"): e.get("value") for e in c.get("env", [])}
    caps = (env.get("NVIDIA_DRIVER_CAPABILITIES") or "").split(",")
    check("video" in caps or "all" in caps,
          "%s: NVIDIA_DRIVER_CAPABILITIES without video (no NVDEC)" % where)
    mounts = {m.get("name"): m.get("mountPath")
              for m in c.get("volumeMounts", [])}
    for name in mounts:
        check(name in volumes, "%s: mount of no volume %r" % (where, name))
    command = " ".join(c.get("command", []) + c.get("args", []))
    # Every file the command reads from a mounted ConfigMap is a key of it
    # for each pod ordinal (pipeline-${HOSTNAME##*-}).
    for path, stem in re.findall(r"(/\S+?)/([\w.-]+)-\$\{HOSTNAME##\*-\}",
                                 command):
        vol = [n for n, p in mounts.items() if p == path]
        check(vol, "%s: %s is not mounted" % (where, path))
        for n in vol:
            data = config.get(volumes[n], {})
            for i in range(replicas):
                check("%s-%d" % (stem, i) in data,
                      "%s: ConfigMap %s has no %s-%d for pod %d"
                      % (where, volumes[n], stem, i, i))


def check_manifest(doc):
    check(doc.get("kind") == "List" and isinstance(doc.get("items"), list),
          "the manifest is not a List")
    items = doc.get("items", [])
    configs = {i["metadata"]["name"]: i.get("data", {}) for i in items
               if i.get("kind") == "ConfigMap"}
    services = {i["metadata"]["name"]: i for i in items
                if i.get("kind") == "Service"}
    sets = [i for i in items if i.get("kind") == "StatefulSet"]
    for n, obj in enumerate(items):
        check_object(obj, "item %d" % n)
    check(len(sets) == 1, "not one StatefulSet")
    for s in sets:
        spec = s.get("spec", {})
        where = "StatefulSet %s" % s["metadata"]["name"]
        check(spec.get("serviceName") in services,
              "%s: serviceName names no Service" % where)
        labels = spec.get("template", {}).get("metadata", {}).get("labels",
                                                                  {})
        match = spec.get("selector", {}).get("matchLabels", {})
        check(match and all(labels.get(k) == v for k, v in match.items()),
              "%s: the selector does not match the pod labels" % where)
        for name, svc in services.items():
            sel = svc.get("spec", {}).get("selector", {})
            check(all(labels.get(k) == v for k, v in sel.items()),
                  "Service %s selects no pod of %s" % (name, where))
        pod = spec.get("template", {}).get("spec", {})
        volumes = {v["name"]: v.get("configMap", {}).get("name")
                   for v in pod.get("volumes", [])}
        for cm in volumes.values():
            check(cm in configs, "%s: volume of no ConfigMap %r"
                  % (where, cm))
        containers = pod.get("containers", [])
        check(containers, "%s: no container" % where)
        for c in containers:
            check_container(c, volumes, configs, spec.get("replicas", 1),
                            "%s/%s" % (where, c.get("name")))
    for name, data in configs.items():
        for key, line in data.items():
            check_launch_line(line, "ConfigMap %s/%s" % (name, key))


def check_launch_line(line, where):
    """A launch line for a pod that sees one GPU: every element on its
    device 0."""
    ids = re.findall(r"cuda-device-id=(-?\d+)", line)
    check(ids and all(i in ("0", "-1") for i in ids),
          "%s: a pod sees one GPU, as device 0" % where)
    # nvcodec's decoder of a process's only GPU is nvh264dec, and its
    # cuda-device-id is read-only (docs/scaling.md).
    check(not re.search(r"nvh26[45](sl)?device\d+dec|nvh26[45]dec[^!]*"
                        r"cuda-device-id", line),
          "%s: a pod's decoder is nvh264dec, without cuda-device-id" % where)
    check(line.count("(") == line.count(")") and "'" not in line,
          "%s: unbalanced caps or quotes" % where)


# --- the systemd unit -------------------------------------------------------

# The keys systemd takes in the sections the sample uses (systemd.unit,
# systemd.service, systemd.exec, systemd.kill): a typo is caught here.
KEYS = {
    "Unit": {"Description", "Documentation", "After", "Before", "Wants",
             "Requires", "BindsTo", "PartOf", "Conflicts",
             "StartLimitIntervalSec", "StartLimitBurst", "ConditionPathExists"},
    "Service": {"Type", "Environment", "EnvironmentFile", "ExecStart",
                "ExecStartPre", "ExecStop", "ExecReload", "Restart",
                "RestartSec", "TimeoutStartSec", "TimeoutStopSec",
                "KillSignal", "KillMode", "DynamicUser", "User", "Group",
                "SupplementaryGroups", "CacheDirectory", "StateDirectory",
                "RuntimeDirectory", "WorkingDirectory", "Nice",
                "LimitMEMLOCK", "MemoryMax", "CPUAffinity", "NUMAPolicy",
                "NUMAMask", "DeviceAllow", "DevicePolicy"},
    "Install": {"WantedBy", "RequiredBy", "Alias", "DefaultInstance"},
}
TYPES = {"simple", "exec", "forking", "oneshot", "dbus", "notify", "idle"}
RESTARTS = {"no", "on-success", "on-failure", "on-abnormal", "on-watchdog",
            "on-abort", "always"}
BOOLS = {"yes", "no", "true", "false", "on", "off", "1", "0"}
TIME = re.compile(r"(infinity|(\d+(\.\d+)?\s*(us|ms|s|min|h|d)?\s*)+)")
SPECIFIERS = set("aAbBCdEfgGhHiIjJlLmMnNopPqsStTuUvVwW%")


def parse_unit(path):
    """{section: [(key, value, line number)]}; syntax faults recorded."""
    sections, current = {}, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    n, pending = 0, ""
    for n, raw in enumerate(lines, 1):
        line = pending + raw.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if not line or line[0] in "#;":
            continue
        m = re.fullmatch(r"\[([A-Za-z]+)\]", line)
        if m:
            current = m.group(1)
            check(current not in sections, "line %d: [%s] twice"
                  % (n, current))
            check(current in KEYS, "line %d: unknown section [%s]"
                  % (n, current))
            sections.setdefault(current, [])
            continue
        m = re.fullmatch(r"([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)", line)
        if not check(m is not None and current is not None,
                     "line %d: not KEY=VALUE in a section: %r" % (n, line)):
            continue
        key, value = m.group(1), m.group(2)
        check(key in KEYS.get(current, ()), "line %d: unknown key %s in [%s]"
              % (n, key, current))
        for spec in re.findall(r"%(.)", value.replace("%%", "")):
            check(spec in SPECIFIERS, "line %d: unknown specifier %%%s"
                  % (n, spec))
        sections[current].append((key, value, n))
    check(not pending, "the unit ends in a continuation")
    return sections


def check_unit(path):
    name = os.path.basename(path)
    sections = parse_unit(path)
    check(name.endswith("@.service"), "%s is not a template unit" % name)
    for s in ("Unit", "Service", "Install"):
        check(s in sections, "no [%s]" % s)
    values = {}
    for key, value, n in sections.get("Service", []):
        values.setdefault(key, []).append((value, n))
        if key == "Type":
            check(value in TYPES, "line %d: Type=%s" % (n, value))
        elif key == "Restart":
            check(value in RESTARTS, "line %d: Restart=%s" % (n, value))
        elif key == "DynamicUser":
            check(value in BOOLS, "line %d: DynamicUser=%s" % (n, value))
        elif key in ("RestartSec", "TimeoutStopSec", "TimeoutStartSec"):
            check(TIME.fullmatch(value) is not None, "line %d: %s=%s"
                  % (n, key, value))
        elif key == "KillSignal":
            check(re.fullmatch(r"SIG[A-Z0-9]+", value) is not None,
                  "line %d: KillSignal=%s" % (n, value))
        elif key.startswith("Exec") or key == "EnvironmentFile":
            # Absolute, after systemd's prefixes (-, @, :, +, !).
            check(re.match(r"[-@:+!]*/", value) is not None,
                  "line %d: %s needs an absolute path" % (n, key))
        elif key == "Environment":
            check(re.fullmatch(r"\S+?=\S*", value) is not None,
                  "line %d: Environment= takes VAR=VALUE" % n)
    check(len(values.get("ExecStart", [])) == 1, "not one ExecStart")
    text = open(path, encoding="utf-8").read()
    check("CUDA_VISIBLE_DEVICES=%i" in text,
          "the instance does not pick its GPU")
    check(any(k == "WantedBy" for k, _, _ in sections.get("Install", [])),
          "no WantedBy")
    verify_with_systemd(path)


def verify_with_systemd(path):
    """systemd-analyze verify on instance 0, where there is one (offline:
    it reads the file only); any complaint about the unit is a fault."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        print("# systemd-analyze not found: its verify not run")
        return
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(path, d)
        inst = os.path.basename(path).replace("@.", "@0.")
        env = dict(os.environ, SYSTEMD_UNIT_PATH=d + ":")
        r = subprocess.run([tool, "verify", "--man=no",
                            os.path.join(d, inst)],
                           env=env, capture_output=True, text=True,
                           timeout=60)
    out = (r.stdout + r.stderr).strip()
    # Only what concerns the unit's own text: a host without the binaries
    # it names (gst-launch-1.0) or without systemd running is not a fault.
    for line in out.splitlines():
        if re.search(r"Unknown (key|section|lvalue)|Invalid|Failed to parse"
                     r"|bad unit file setting|Missing '='", line):
            faults.append("systemd-analyze: " + line)
    print("# systemd-analyze verify: %s" % (out or "no complaint"))


def check_samples(manifest, unit):
    """The faults of the two samples (a list, empty when they pass)."""
    del faults[:]
    check_manifest(load_manifest(manifest))
    check_unit(unit)
    return list(faults)


# Damage done to copies of the samples, each to be caught: (file, old,
# new, a word of the fault expected).
BROKEN = [
    ("k8s", '"compute,utility,video"', '"compute,utility"', "NVDEC"),
    ("k8s", '"replicas": 2', '"replicas": 3', "pipeline-2"),
    ("k8s", '"serviceName": "gst-cudagraph"', '"serviceName": "x"',
     "serviceName"),
    ("k8s", '"nvidia.com/gpu": 1', '"nvidia.com/gpu": "1"', "nvidia.com/gpu"),
    ("k8s", '"items": [', '"items": [,', "JSON"),
    ("k8s", "h264parse ! nvh264dec ! b.sink_0",
     "h264parse ! nvh264dec cuda-device-id=0 ! b.sink_0", "decoder"),
    ("unit", "Type=exec", "Typo=exec", "Typo"),
    ("unit", "Restart=on-failure", "Restart=sometimes", "Restart"),
    ("unit", "[Install]", "[Instal]", "Instal"),
]


def check_broken():
    """Each damaged copy is refused, for the reason expected."""
    ok = True
    texts = {}
    for key, path in (("k8s", MANIFEST), ("unit", UNIT)):
        with open(path, encoding="utf-8") as f:
            texts[key] = f.read()
    with tempfile.TemporaryDirectory() as d:
        for which, old, new, word in BROKEN:
            assert old in texts[which], old
            paths = {}
            for key, path in (("k8s", MANIFEST), ("unit", UNIT)):
                paths[key] = os.path.join(d, os.path.basename(path))
                with open(paths[key], "w", encoding="utf-8") as f:
                    f.write(texts[key].replace(old, new) if key == which
                            else texts[key])
            try:
                got = check_samples(paths["k8s"], paths["unit"])
            except ValueError as e:  # json.JSONDecodeError
                got = ["JSON: %s" % e]
            hit = any(word in g for g in got)
            print("%s: %s -> %s: %s" % ("ok" if hit else "MISSED", old, new,
                                        "; ".join(got) or "no fault"))
            ok = ok and hit
    return ok


def main():
    found = check_samples(MANIFEST, UNIT)
    for f in found:
        print("FAULT: " + f)
    print("%d fault(s) in deploy/" % len(found))
    broken_ok = check_broken()
    return 1 if found or not broken_ok else 0


if __name__ == "__main__":
    sys.exit(main())
