"""Seasons: tournament formats that plan rounds of pairings, the season runner that
plays them through an executor and stores the results, standings, and the event
hub that feeds live watchers.
"""
