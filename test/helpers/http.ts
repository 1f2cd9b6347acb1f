// Real HTTP against a running system.
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: leave the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
