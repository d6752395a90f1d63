"""CalDAV listings on one big space (SQLite): the peak Python memory (tracemalloc) of one answer
and the median wall time of RUNS more (untraced) for PROPFIND depth 1 (getetag), calendar-query
with calendar-data, and an initial sync-collection with DAV:limit 10 and without, on 20,000
tasks (bench/todo_views.py's board: root tasks over 4 columns, a fifth of them with 2 subtasks).

Run alone: `python bench/dav_listing.py [root tasks]`. To compare two checkouts in one run on one
machine, run it once with each on PYTHONPATH (docs/caldav.md has the figures)."""

from __future__ import annotations

import base64
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PROPFIND = '<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>'
QUERY = (
    '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
    '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/></C:comp-filter></C:filter>'
    "</C:calendar-query>"
)


def _sync(limit: str) -> str:
    return (
        '<D:sync-collection xmlns:D="DAV:"><D:sync-token/><D:sync-level>1</D:sync-level>'
        f"{limit}<D:prop><D:getetag/></D:prop></D:sync-collection>"
    )


#: Timed runs of each request (the median is shown; the machine is shared).
RUNS = 5
CASES = {
    "PROPFIND depth 1 (getetag)": ("PROPFIND", PROPFIND),
    "calendar-query (calendar-data)": ("REPORT", QUERY),
    "sync-collection initial, DAV:limit 10": ("REPORT", _sync("<D:limit><D:nresults>10</D:nresults></D:limit>")),
    "sync-collection initial": ("REPORT", _sync("")),
}


def main(roots: int) -> None:
    from bench.todo_views import _seed
    from starlette.testclient import TestClient

    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.runtime.app_factories import create_local_app
    from mesq.todos import state as todo_state
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    print("mesq from", __import__("mesq").__file__)
    with tempfile.TemporaryDirectory() as tmp:
        services = build_services(Settings(data_dir=Path(tmp), allowed_hosts=("testserver",)))
        user = create_user(services.items, "lister", "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="Phone", scopes="todo:read")
        _seed(services, user["id"], roots)
        space = todo_state.load_partial(services.items, user["id"]).default_space()
        assert space is not None
        calendar = f"/dav/lister/{space['id']}/"
        auth = "Basic " + base64.b64encode(f"lister:{token}".encode()).decode()
        with TestClient(create_local_app(services), base_url="https://testserver") as client:
            for label, (method, body) in CASES.items():

                def send(method: str = method, body: str = body) -> Any:
                    headers = {"Authorization": auth, "Depth": "1"}
                    answer = client.request(method, calendar, content=body, headers=headers)
                    assert answer.status_code == 207, answer.text[:300]
                    return answer

                send()  # warm
                took = []
                for _ in range(RUNS):  # timed without tracemalloc, which slows Python code several times
                    began = time.perf_counter()
                    answer = send()
                    took.append(time.perf_counter() - began)
                tracemalloc.start()
                send()
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                responses = answer.content.count(b"<D:response>")
                median = statistics.median(took) * 1000
                print(f"{label:40} peak {peak / 2**20:6.1f} MiB  median {median:6.0f} ms  {responses} responses")
        services.items.close()


if __name__ == "__main__":
    # 14,286 root tasks, a fifth with 2 subtasks: 20,002 tasks in the space.
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 14_286)
