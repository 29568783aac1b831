/** Text made safe inside a quoted Mermaid label: its entity codes for `&`, `"`, `<` and `>`. */
export function escapeMermaid(text: string): string {
  return text.replace(/&/g, '#amp;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
}
