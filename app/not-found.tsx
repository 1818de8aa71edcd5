import Link from "next/link";

export default function NotFound() {
  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-md flex-col items-center justify-center gap-3 p-8 text-center">
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="text-sm text-slate-600">This page does not exist, or it belongs to a workspace you are not a member of.</p>
      <Link className="btn-secondary" href="/">
        Back to your workspace
      </Link>
    </main>
  );
}
