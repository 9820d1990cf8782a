#!/usr/bin/python3
"""Execute one notebook headless with nbclient, streaming cell output to the console as it arrives.

Run with Debian's /usr/bin/python3 (python3-nbclient); scripts/run-notebooks.cjs calls it with
JUPYTER_PATH pointing at the project-local kernel registry (<repo>/.jupyter).

  /usr/bin/python3 scripts/nbrun.py NOTEBOOK --output OUT.ipynb [--cwd DIR] [--timeout S]
                                    [--kernel tslab] [--status STATUS.json] [--label NAME]

The executed notebook (also a partial one when a cell fails) is written to --output. --status gets a JSON
summary: {ok, seconds, kernelStartSeconds, kernelCpuSeconds, cells: [{index, number, seconds, cpuSeconds}],
error: {cellIndex, cellNumber, source, ename, evalue, message}}. CPU seconds are the kernel process's (all its
threads, from /proc; absent elsewhere): on a loaded machine they say where the time goes when wall times cannot. Exit code 0 on success, 1 on a failing cell or kernel error, 2 on bad usage.
"""
import argparse
import asyncio
import json
import os
import re
import sys
import time
import uuid
import warnings

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def describe_data(data):
    """One console line for a display_data / execute_result bundle."""
    if 'text/plain' in data and not any(k.startswith('image/') for k in data):
        text = data['text/plain']
        return text if text.endswith('\n') else text + '\n'
    parts = []
    for mime, value in data.items():
        if mime == 'text/plain':
            continue
        size = len(value) if isinstance(value, str) else len(json.dumps(value))
        if mime.startswith('image/') and isinstance(value, str):
            size = len(value) * 3 // 4  # base64
        parts.append(f'{mime} {size / 1024:.1f} kB')
    label = data.get('text/plain', '')
    label = f' {label.strip()}' if label else ''
    return f'[display{label}: {", ".join(parts)}]\n'


class StreamingClient(NotebookClient):
    """NotebookClient that echoes every output to the console while the cell runs."""

    def output(self, outs, msg, display_id, cell_index):
        try:
            msg_type = msg['msg_type']
            content = msg['content']
            if msg_type == 'stream':
                (sys.stderr if content.get('name') == 'stderr' else sys.stdout).write(content.get('text', ''))
                sys.stdout.flush()
                sys.stderr.flush()
            elif msg_type in ('display_data', 'execute_result'):
                out(describe_data(content.get('data', {})))
            elif msg_type == 'error':
                tb = content.get('traceback') or []
                sys.stderr.write('\n'.join(tb) + '\n' if tb else f"{content.get('ename')}: {content.get('evalue')}\n")
                sys.stderr.flush()
        except Exception as e:  # never let console echo break execution
            sys.stderr.write(f'[nbrun] could not echo output: {e}\n')
        return super().output(outs, msg, display_id, cell_index)


def error_summary(text):
    """The most telling line of an error text: `XxxError: ...`, a tslab diagnostic `L:C - ...`, else the first line."""
    lines = [l.strip() for l in (text or '').splitlines() if l.strip()]
    for l in lines:
        if re.match(r'^([A-Za-z_$][\w$.]*)?(Error|Exception)\b', l) or re.match(r'^\d+:\d+ - ', l):
            return l[:300]
    return lines[0][:300] if lines else ''


def process_cpu_seconds(pid):
    """CPU seconds (user + system, threads included, reaped children too) of a live process, from /proc; None elsewhere."""
    if pid is None:
        return None
    try:
        with open(f'/proc/{pid}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
        # fields[0] is `state` (stat field 3): utime, stime, cutime, cstime are stat fields 14-17.
        return sum(int(x) for x in fields[11:15]) / os.sysconf('SC_CLK_TCK')
    except (OSError, ValueError, IndexError):
        return None


def kernel_pid(client):
    """Process id of the kernel nbclient started (jupyter_client >= 7 keeps it on the provisioner)."""
    km = getattr(client, 'km', None)
    for obj in (getattr(km, 'provisioner', None), km):
        proc = getattr(obj, 'process', None) or getattr(obj, 'kernel', None)
        pid = getattr(proc, 'pid', None)
        if isinstance(pid, int):
            return pid
    return None


def stream_text(cell, name):
    return ''.join(o.get('text', '') for o in cell.get('outputs', []) if o.get('output_type') == 'stream' and o.get('name') == name)


async def run(args):
    with warnings.catch_warnings():
        # Notebooks written by hand may lack cell ids (nbformat >= 4.5); give them ids instead of warning.
        warnings.simplefilter('ignore')
        nb = nbformat.read(args.notebook, as_version=4)
    for cell in nb.cells:
        if 'id' not in cell:
            cell['id'] = uuid.uuid4().hex[:8]
    label = args.label or os.path.splitext(os.path.basename(args.notebook))[0]
    client = StreamingClient(
        nb,
        timeout=args.timeout,
        kernel_name=args.kernel,
        startup_timeout=args.startup_timeout,
        resources={'metadata': {'path': args.cwd}},
        record_timing=True,
    )
    status = {'notebook': args.notebook, 'ok': False, 'cells': [], 'error': None}
    t0 = time.time()
    n_code = sum(1 for c in nb.cells if c.cell_type == 'code' and c.source.strip())
    try:
        async with client.async_setup_kernel():
            msg_id = await ensure_async(client.kc.kernel_info())
            info = await client.async_wait_for_reply(msg_id)
            if info is not None and 'language_info' in info['content']:
                nb.metadata['language_info'] = info['content']['language_info']
            status['kernelStartSeconds'] = round(time.time() - t0, 3)
            pid = kernel_pid(client)
            cpu_start = process_cpu_seconds(pid)
            out(f'[nbrun] {label}: kernel {args.kernel} ready in {status["kernelStartSeconds"]:.1f} s\n')
            done = 0
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != 'code' or not cell.source.strip():
                    continue
                done += 1
                first = cell.source.strip().splitlines()[0][:80]
                out(f'\n[nbrun] {label}: cell {done}/{n_code} (#{index}) {first}\n')
                c0 = time.time()
                cpu0 = process_cpu_seconds(pid)
                try:
                    await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                except CellExecutionError as e:
                    # tslab reports compile/runtime errors on stderr, with an error reply that carries no ename.
                    err_text = stream_text(cell, 'stderr').strip()
                    status['error'] = {
                        'cellIndex': index,
                        'cellNumber': done,
                        'source': cell.source,
                        'ename': getattr(e, 'ename', None),
                        'evalue': getattr(e, 'evalue', None) or err_text[-2000:],
                        'message': err_text[-2000:] or str(e)[-2000:],
                    }
                    raise
                finally:
                    cpu1 = process_cpu_seconds(pid)
                    entry = {'index': index, 'number': done, 'seconds': round(time.time() - c0, 3)}
                    if cpu0 is not None and cpu1 is not None:
                        entry['cpuSeconds'] = round(cpu1 - cpu0, 3)
                        status['kernelCpuSeconds'] = round(cpu1 - (cpu_start or 0), 3)
                    status['cells'].append(entry)
                out(f'[nbrun] {label}: cell {done}/{n_code} done in {time.time() - c0:.1f} s\n')
            status['ok'] = True
    except Exception as e:  # cell errors, timeouts, dead kernel, kernel start failures
        if status['error'] is None:
            idx = status['cells'][-1]['index'] if status['cells'] else None
            status['error'] = {
                'cellIndex': idx,
                'cellNumber': status['cells'][-1]['number'] if status['cells'] else None,
                'source': nb.cells[idx].source if idx is not None else None,
                'ename': type(e).__name__,
                'evalue': str(e)[-2000:],
                'message': str(e)[-2000:],
            }
    if status['error'] is not None:
        err = status['error']
        summary = error_summary(err.get('evalue') or err.get('message'))
        ename = err.get('ename') if err.get('ename') not in (None, '<Error>') else ''
        err['summary'] = f'{ename}: {summary}' if ename and not summary.startswith(ename) else summary
    status['seconds'] = round(time.time() - t0, 3)
    return nb, status


KERNEL_START_ATTEMPTS = 3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('notebook')
    ap.add_argument('--output', required=True)
    ap.add_argument('--cwd', default=None, help='kernel working directory (default: the notebook folder)')
    ap.add_argument('--timeout', type=int, default=3600, help='per-cell timeout in seconds')
    ap.add_argument('--startup-timeout', type=int, default=120)
    ap.add_argument('--kernel', default='tslab')
    ap.add_argument('--status', default=None)
    ap.add_argument('--label', default=None)
    args = ap.parse_args()
    args.notebook = os.path.abspath(args.notebook)
    args.cwd = os.path.abspath(args.cwd or os.path.dirname(args.notebook))

    # A kernel that fails to start (seen: tslab's ZeroMQ sockets answering EBUSY, "Socket is blocked by a bind or
    # unbind operation", then "Kernel didn't respond in 120 seconds", when two notebooks start side by side) is
    # started again, up to KERNEL_START_ATTEMPTS times; a failure after the kernel answered is the notebook's own.
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        nb, status = asyncio.run(run(args))
        status['kernelStartAttempts'] = attempt
        if status['ok'] or 'kernelStartSeconds' in status or attempt == KERNEL_START_ATTEMPTS:
            break
        out(f'[nbrun] {args.label or os.path.basename(args.notebook)}: kernel start failed ({status["error"].get("summary")}); starting it again ({attempt + 1}/{KERNEL_START_ATTEMPTS})\n')
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = f'{args.output}.{os.getpid()}.tmp'
    nbformat.write(nb, tmp)
    os.replace(tmp, args.output)
    status['output'] = os.path.abspath(args.output)
    if args.status:
        with open(args.status, 'w') as f:
            json.dump(status, f, indent=2)
    if not status['ok']:
        err = status['error'] or {}
        sys.stderr.write(
            f"\n[nbrun] FAILED {args.notebook}: code cell {err.get('cellNumber')} (cell index {err.get('cellIndex')}): "
            f"{err.get('summary')}\n"
        )
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
