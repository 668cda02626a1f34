// §9.1: the list preview is cut at 200 Unicode code points, never inside one.
export const PREVIEW_LIMIT = 200;
export function cutPreview(body: string, limit = PREVIEW_LIMIT): string {
  const points = Array.from(body);
  return points.length <= limit ? body : points.slice(0, limit).join("");
}
