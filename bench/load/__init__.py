"""The load workload (locustfile.py) and the revision checks its answers go through."""
