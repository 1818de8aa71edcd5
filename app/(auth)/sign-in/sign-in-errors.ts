/**
 * What the sign-in page says for the `?error=` (and `&code=`) it is sent back with: next-auth's own error names, and
 * single sign-on's refusals (`sso_…`). `provider` is the label of the sign-in button to point to.
 */
export function signInErrorSentence(error: string | undefined, code: string | undefined, provider: string | null): string | undefined {
  if (!error) return undefined;
  if (code === "sso_required") return ssoRequiredSentence(provider);
  switch (error) {
    case "sso_unverified_email":
      return "Your identity provider did not say that your email address is verified, so it cannot be matched to anyone here. Ask your administrator to verify it there, then try again.";
    case "sso_no_workspace":
      return "No workspace here has invited your email address. Ask a workspace owner or manager to invite you, then sign in again.";
    case "CredentialsSignin":
      return "Wrong email or password.";
    case "OAuthCallbackError":
      return "Your identity provider did not sign you in (perhaps the sign-in was cancelled there). Try again.";
    case "AccessDenied":
      return "This sign-in was refused. Try again, or ask your administrator.";
    default:
      // next-auth's "Configuration" and the rest: the provider's answer failed a check (state, nonce, issuer, audience, expiry).
      return "Signing in through your identity provider did not complete: its answer could not be checked. Try again; if it keeps happening, tell your administrator.";
  }
}

export function ssoRequiredSentence(provider: string | null): string {
  return provider
    ? `Your workspace signs in with ${provider}. Use “Sign in with ${provider}” above.`
    : "Your workspace signs in with single sign-on, which this server does not offer right now. Ask your administrator.";
}
