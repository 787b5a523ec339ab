"""The live page for players (`encounter serve`): what it shows (`page`) and the server that
keeps it live in their browsers (`serve`, the optional extra `[serve]`)."""
