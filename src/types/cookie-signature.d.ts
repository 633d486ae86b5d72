// cookie-signature ships no types; these are the two calls used (src/http/session/signed-cookie.ts).
declare module 'cookie-signature' {
  const signature: {
    sign(value: string, secret: string): string;
    unsign(input: string, secret: string): string | false;
  };
  export default signature;
}
