"""ironsworn"""
