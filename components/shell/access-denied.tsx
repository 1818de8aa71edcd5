export function AccessDenied({ code, message }: { code: string; message: string }) {
  return (
    <div className="card mx-auto mt-12 max-w-lg p-6 text-center" role="alert">
      <h1 className="text-lg font-semibold">You don&apos;t have access to this page</h1>
      <p className="mt-2 text-sm text-slate-600">{message}</p>
      <p className="mt-3 font-mono text-xs text-slate-500">{code}</p>
    </div>
  );
}
