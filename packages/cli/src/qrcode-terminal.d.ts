// qrcode-terminal 0.12 ships no types: the one call the CLI makes (maity link).
declare module "qrcode-terminal" {
  const qrcode: { generate(input: string, options: { small?: boolean }, callback: (qr: string) => void): void };
  export default qrcode;
}
