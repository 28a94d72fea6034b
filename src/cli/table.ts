/**
 * Rows as aligned columns, the first row being the heading; one line each. Control characters
 * (a title typed in the admin may hold any) are shown as U+FFFD, so none reaches the terminal.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map((cell) => cell.replace(/\p{Cc}/gu, '\uFFFD')));
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}
