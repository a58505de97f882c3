#!/usr/bin/env python3
"""Runs a command on a fresh pseudo-terminal (stdin, stdout and stderr all on the pty slave),
waits until PROMPT appears on the terminal, sends SIGNAL to the command, and reports as one JSON
line what happened:

  {"prompt_seen": bool, "echo_at_prompt": bool, "exit_code": int|null, "killed_by": int|null,
   "seconds_to_exit": float|null, "timed_out": bool, "echo_after": bool, "output": str}

The slave stays open here, so its termios (ECHO) can be read while the command prompts and after
it has gone: a process that leaves echo off shows `"echo_after": false`. A command still running
GRACE seconds after the signal is killed with SIGKILL (`"timed_out": true`).

With --type TEXT instead of --signal, TEXT is typed at the prompt (a control: the prompt still
reads what a person types) and the command is left to finish within GRACE seconds.

usage: signal_at_prompt.py --prompt TEXT (--signal TERM|INT | --type TEXT) [--grace S] [--settle S]
       -- COMMAND...
"""
import argparse
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time


def read_available(fd, buffer, seconds):
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        buffer.extend(chunk)


def echo_on(fd):
    return bool(termios.tcgetattr(fd)[3] & termios.ECHO)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompt", required=True)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--signal", choices=["TERM", "INT"])
    action.add_argument("--type", help="text to type at the prompt (\\r is Enter)")
    parser.add_argument("--prompt-timeout", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=0.5, help="seconds between the prompt and the signal")
    parser.add_argument("--grace", type=float, default=10.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    master, slave = pty.openpty()
    child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                             close_fds=True)
    output = bytearray()
    prompt = args.prompt.encode()
    deadline = time.monotonic() + args.prompt_timeout
    while prompt not in output and time.monotonic() < deadline and child.poll() is None:
        read_available(master, output, 0.1)
    report = {"prompt_seen": prompt in output, "echo_at_prompt": None, "exit_code": None, "killed_by": None,
              "seconds_to_exit": None, "timed_out": False}
    if report["prompt_seen"] and child.poll() is None:
        read_available(master, output, args.settle)  # let it block in its read of the terminal
        report["echo_at_prompt"] = echo_on(slave)
        sent = time.monotonic()
        if args.signal:
            child.send_signal(signal.SIGTERM if args.signal == "TERM" else signal.SIGINT)
        else:
            os.write(master, args.type.replace("\\r", "\r").encode())
        try:
            while child.poll() is None and time.monotonic() - sent < args.grace:
                read_available(master, output, 0.05)  # keep the pty drained while it works
            child.wait(timeout=max(0.0, args.grace - (time.monotonic() - sent)))
            report["seconds_to_exit"] = round(time.monotonic() - sent, 3)
        except subprocess.TimeoutExpired:
            report["timed_out"] = True
            child.kill()
            child.wait()
    else:
        if child.poll() is None:
            child.kill()
        child.wait()
    code = child.returncode
    if code is not None and code < 0:
        report["killed_by"] = -code
    else:
        report["exit_code"] = code
    read_available(master, output, 0.2)
    report["echo_after"] = echo_on(slave)
    report["output"] = output.decode("utf-8", "replace")
    os.close(slave)
    os.close(master)
    print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())
