import { signOutAction } from "./sign-out";

export function NoWorkspace({ name }: { name: string }) {
  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-md flex-col items-center justify-center gap-3 p-8 text-center">
      <h1 className="text-xl font-semibold">Welcome, {name}</h1>
      <p className="text-sm text-slate-600">You are not a member of any workspace yet. Ask an owner or manager to add you.</p>
      <form action={signOutAction}>
        <button className="btn-secondary">Sign out</button>
      </form>
    </main>
  );
}
