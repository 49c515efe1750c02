#!/usr/bin/env python3
"""Prints the network requests a page made, from a Chromium net log (--log-net-log=FILE).

    netlog-page-requests.py FILE

Chromium's own requests (updates, spelling dictionaries, accounts) have no origin ("not an
origin"); a page opened from file:// has an opaque origin, so its requests show "null". Exit
status 1 when the page requested anything.
"""
import json
import sys

log = json.load(open(sys.argv[1]))
types = {value: name for name, value in log["constants"]["logEventTypes"].items()}
found = sorted({event["params"]["url"] for event in log["events"]
                if types.get(event["type"]) == "URL_REQUEST_START_JOB"
                and event.get("params", {}).get("url")
                and event["params"].get("initiator") != "not an origin"})
for url in found:
    print(url)
sys.exit(1 if found else 0)
