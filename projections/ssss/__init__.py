"""ssss"""
