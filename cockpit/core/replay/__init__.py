"""Going back over a run: replay, branch, resume, re-ask, and the local files a run was served from."""
