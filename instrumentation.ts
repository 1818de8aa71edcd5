export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerProcess } = await import("./lib/server-process");
  await startServerProcess();
}
