"""Searches: greedy strategies, the exact height/total searches, and a plain reference search."""
