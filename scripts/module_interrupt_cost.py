"""The Python module's GPU calls with the Ctrl-C check (pagerank_options::interrupt, installed on
the main thread) and without it (a worker thread: the check is the main thread's only), alternating
in one process, medians of 30 calls each, float and double.

    PYTHONPATH=<perron's site> python3 scripts/module_interrupt_cost.py GRAPH...
"""
import statistics, sys, threading, time
import perron
out = []
for path in sys.argv[1:]:
    A = perron.read_matrix(path)
    for prec in ("float", "double"):
        perron.pagerank(A, device="cuda", precision=prec)  # the pull trial, the context
        main, worker = [], []
        def one(into):
            t = time.perf_counter()
            _, info = perron.pagerank(A, device="cuda", precision=prec)
            into.append((time.perf_counter() - t, info.pull, info.host_syncs, info.timings["solve"]))
        for _ in range(30):
            one(main)
            th = threading.Thread(target=one, args=(worker,)); th.start(); th.join()
        m = statistics.median(x[0] for x in main); w = statistics.median(x[0] for x in worker)
        ms = statistics.median(x[3] for x in main); ws = statistics.median(x[3] for x in worker)
        print(f"{path.split('/')[-1]} {prec} pull {main[0][1]} syncs {main[0][2]}/{worker[0][2]}: "
              f"call ms with check {m*1e3:.3f}, without {w*1e3:.3f} ({m/w:.3f}); "
              f"solve ms {ms*1e3:.3f} / {ws*1e3:.3f} ({ms/ws:.3f})", flush=True)
