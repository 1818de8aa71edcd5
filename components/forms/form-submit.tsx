/** The end of a one-column form: the server's refusal (if any), then the submit button that says it is working. */
export function FormSubmit({ error, pending, label, pendingLabel }: { error?: string; pending: boolean; label: string; pendingLabel: string }) {
  return (
    <>
      {error ? (
        <p role="alert" className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700">
          {error}
        </p>
      ) : null}
      <button type="submit" className="btn-primary w-full" disabled={pending}>
        {pending ? pendingLabel : label}
      </button>
    </>
  );
}
