// The search index: "built" for ~300 ms, then the results of the query.
onmessage = (e) => {
  setTimeout(() => {
    postMessage([
      { title: "Settling a page", url: "target.html#settle" },
      { title: "Settle cap and pending work", url: "target.html#cap" },
    ]);
  }, 300);
};
