"""fates_edge"""
