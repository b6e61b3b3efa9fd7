/** The bare baseline: node:http reading a small JSON body and answering a small JSON body. PORT. */
import http from "node:http";

const ANSWER = JSON.stringify({ distanceMetres: 9120, price: 21.27, currency: "SAR" });

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end('{"code":"MALFORMED_REQUEST"}');
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening ${process.env.PORT}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("SIGINT", () => server.close(() => process.exit(0)));
