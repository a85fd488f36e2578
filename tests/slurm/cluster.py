# SPDX-License-Identifier: LGPL-2.1-or-later
"""A throw-away Slurm cluster on this host, from Debian's packages: munged with a generated key, slurmctld and
several `slurmd -N nodeK` (Debian builds Slurm with --enable-multiple-slurmd), each on its own localhost port,
everything (configuration, state, spool, logs, sockets) in one temporary folder. Every wait is bounded and says what
it waited for; stop() tears everything down, also after a failure. Needs root (slurmd starts jobs as their users).

    with Cluster(folder, nodes=3) as c:
        c.run(["sbatch", ...])        # SLURM_CONF points at the cluster
"""
import os
import shutil
import signal
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel")


class Unavailable(Exception):
    """The cluster cannot run on this machine; the message says exactly why."""


class Failed(Exception):
    """The cluster did not do what it was asked within its bound."""


def missing_requirements():
    """Why a cluster cannot start here, or None."""
    if os.geteuid() != 0:
        return "slurmd starts each job as its user and needs root; this test runs as uid %d" % os.geteuid()
    missing = [d for d in DAEMONS if shutil.which(d) is None]
    if missing:
        return ("Slurm / munge programs missing: %s (Debian: apt-get install slurmctld slurmd slurm-client munge; "
                "scripts/setup.sh installs them)" % ", ".join(missing))
    return None


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Cluster:
    def __init__(self, folder, nodes=3, cpus=None, gpu_node=None, slurmd_timeout=20, log=print):
        """`cpus`: CPUs per node (list); `gpu_node`: index of a node given two GPUs as GRES (character devices made
        in the folder: Slurm hands them out, nothing runs on them)."""
        self.dir = folder
        self.nodes = ["node%d" % (i + 1) for i in range(nodes)]
        self.cpus = cpus or [1] * nodes
        self.gpu_node = gpu_node
        self.slurmd_timeout = slurmd_timeout
        self.log = log
        self.procs = {}  # name -> Popen
        self.jobs = set()  # job ids submitted through submit()
        self.conf = os.path.join(folder, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for k in list(self.env):
            if k.startswith("SLURM_") and k != "SLURM_CONF":
                del self.env[k]

    # ---- helpers ----
    def path(self, *p):
        return os.path.join(self.dir, *p)

    def run(self, args, timeout=60, check=True, env=None):
        e = dict(self.env, **(env or {}))
        try:
            p = subprocess.run(args, capture_output=True, text=True, env=e, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failed("%s did not answer within %d s" % (" ".join(args), timeout))
        if check and p.returncode != 0:
            raise Failed("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    def wait(self, what, cond, timeout, interval=1.0):
        """Polls cond() until it returns something true; Failed naming `what` after `timeout` seconds."""
        end = time.monotonic() + timeout
        while True:
            v = cond()
            if v:
                return v
            if time.monotonic() > end:
                raise Failed("waited %d s for %s" % (timeout, what))
            time.sleep(interval)

    def _start(self, name, args):
        out = open(self.path("%s.out" % name), "ab")
        self.procs[name] = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                            start_new_session=True)
        out.close()

    # ---- set-up ----
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        why = missing_requirements()
        if why:
            raise Unavailable(why)
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        for d in ("munge", "state", "spool", "log", "dev"):
            os.makedirs(self.path(d), exist_ok=True)
        os.chmod(self.path("munge"), 0o700)
        for n in self.nodes:
            os.makedirs(self.path("spool", n), exist_ok=True)
        # munged with a key of our own.
        key = self.path("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = self.path("munge", "munge.socket")
        self._start("munged", ["munged", "-F", "-f", "--socket=" + self.munge_socket, "--key-file=" + key,
                               "--pid-file=" + self.path("munge", "munged.pid"),
                               "--seed-file=" + self.path("munge", "munged.seed"),
                               "--log-file=" + self.path("log", "munged.log")])
        self.wait("munged's socket " + self.munge_socket, lambda: self._alive("munged") and
                  os.path.exists(self.munge_socket), 30, 0.2)
        # Fake GPUs: character devices (the null device's numbers), which Slurm accepts as GRES files.
        gres_files = []
        if self.gpu_node is not None:
            try:
                for i in range(2):
                    p = self.path("dev", "gpu%d" % i)
                    if not os.path.exists(p):
                        os.mknod(p, 0o600 | 0o020000, os.makedev(1, 3))
                    gres_files.append(p)
            except OSError as e:
                self.log("no GPUs as GRES: cannot make character devices (%s)" % e)
                self.gpu_node = None
        ports = free_ports(1 + len(self.nodes))
        self.ctld_port = ports[0]
        lines = [
            "ClusterName=vmafxtest",
            "SlurmctldHost=localhost(127.0.0.1)",
            "SlurmctldPort=%d" % ports[0],
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=" + self.munge_socket,
            "StateSaveLocation=" + self.path("state"),
            "SlurmdSpoolDir=" + self.path("spool", "%n"),
            "SlurmctldPidFile=" + self.path("slurmctld.pid"),
            "SlurmdPidFile=" + self.path("slurmd.%n.pid"),
            "SlurmctldLogFile=" + self.path("log", "slurmctld.log"),
            "SlurmdLogFile=" + self.path("log", "slurmd.%n.log"),
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            "SlurmdTimeout=%d" % self.slurmd_timeout,
            "MinJobAge=600",
            "GresTypes=gpu",
        ]
        for i, n in enumerate(self.nodes):
            gres = " Gres=gpu:2" if i == self.gpu_node else ""
            lines.append("NodeName=%s NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=1000%s "
                         "State=UNKNOWN" % (n, ports[1 + i], self.cpus[i], gres))
        lines.append("PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(self.path("gres.conf"), "w") as f:
            if self.gpu_node is not None:
                f.write("NodeName=%s Name=gpu File=%s\n" % (self.nodes[self.gpu_node], ",".join(gres_files)))
        self._start("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        self.wait("slurmctld to answer scontrol ping", lambda: self._alive("slurmctld") and
                  "UP" in self.run(["scontrol", "ping"], check=False).stdout, 60)
        config = self.run(["scontrol", "show", "config"]).stdout
        if "MULTIPLE_SLURMD" not in config or not any(
                l.split("=")[-1].strip() == "Yes" for l in config.splitlines() if l.startswith("MULTIPLE_SLURMD")):
            raise Unavailable("this Slurm is built without --enable-multiple-slurmd (scontrol show config: "
                              "MULTIPLE_SLURMD is not Yes); several slurmd on one host need it")
        for n in self.nodes:
            self.start_node(n)
        self.wait_nodes_up(self.nodes, 90)

    def _alive(self, name):
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            if p is not None:
                raise Failed("%s exited (status %s); its output: %s" % (name, p.returncode,
                                                                        self._tail(self.path("%s.out" % name))))
            return False
        return True

    def _tail(self, path, n=2000):
        try:
            with open(path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return "(none)"

    def start_node(self, n):
        self._start(n, ["slurmd", "-D", "-N", n, "-f", self.conf])

    def node_state(self, n):
        return self.run(["sinfo", "-h", "-n", n, "-o", "%T"], check=False).stdout.strip()

    def wait_nodes_up(self, nodes, timeout):
        def up():
            for n in nodes:
                self._alive(n)
                st = self.node_state(n)
                if not st or st.startswith(("down", "drain", "unknown", "not_responding")) or st.endswith("*"):
                    return False
            return True
        self.wait("nodes %s to be up (sinfo)" % ",".join(nodes), up, timeout)

    # ---- jobs ----
    def squeue(self, *args):
        return self.run(["squeue", "-h"] + list(args), check=False).stdout

    def queue_empty(self, jobs=None):
        out = self.squeue("-o", "%A %i %T")
        if not jobs:
            return out.strip() == ""
        return not any(l.split()[1].split("_")[0] in jobs for l in out.splitlines() if l.split())

    def stepds_of_node(self, node):
        """slurmstepd processes of jobs on `node` (ours: their environment names this cluster's SLURM_CONF)."""
        jobs = set(self.squeue("-w", node, "-t", "R", "-o", "%A").split())
        out = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode(errors="replace")
                if not cmd.startswith("slurmstepd:"):
                    continue
                env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
            except OSError:
                continue
            if ("SLURM_CONF=" + self.conf).encode() not in env:
                continue
            job = cmd.split("[", 1)[-1].split(".", 1)[0]
            if job in jobs:
                out.append(int(pid))
        return out

    def crash_node(self, node):
        """Kills a node as a power cut would: its slurmd and its jobs' slurmstepd, with every process they started
        (SIGKILL, by process id). Returns the pids killed."""
        killed = []
        stepds = self.stepds_of_node(node)
        p = self.procs.get(node)
        if p is not None and p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
            killed.append(p.pid)
            p.wait(timeout=30)
        for s in stepds:
            tree = [s] + descendants(s)
            for pid in tree:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
        return killed

    # ---- tear-down ----
    def stop(self):
        """Cancels every job, stops the daemons (SIGTERM, then SIGKILL after 20 s each), and kills any slurmstepd of
        this cluster still there. Never raises."""
        try:
            if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
                self.run(["scancel", "--full", "-u", "root"], check=False, timeout=30)
                try:
                    self.wait("every job to leave the queue", lambda: self.queue_empty(), 60)
                except Failed as e:
                    self.log("tear-down: %s" % e)
        except Exception as e:  # noqa: BLE001 - the tear-down goes on
            self.log("tear-down: %s" % e)
        for name in self.nodes + ["slurmctld", "munged"]:
            p = self.procs.get(name)
            if p is None or p.poll() is not None:
                continue
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.log("tear-down: %s did not stop within 20 s of SIGTERM: SIGKILL" % name)
                p.kill()
                p.wait(timeout=20)
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = open("/proc/%s/cmdline" % pid, "rb").read()
                env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
            except OSError:
                continue
            if cmd.startswith(b"slurmstepd:") and ("SLURM_CONF=" + self.conf).encode() in env:
                for q in [int(pid)] + descendants(int(pid)):
                    try:
                        os.kill(q, signal.SIGKILL)
                    except ProcessLookupError:
                        pass


def descendants(pid):
    """Every process below `pid` (by /proc's parent links)."""
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(p))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out
