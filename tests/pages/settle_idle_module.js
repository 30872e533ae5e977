export function render(root) {
  for (const label of ["Open report", "Share report"]) {
    const b = document.createElement("button");
    b.textContent = label;
    root.appendChild(b);
  }
}
