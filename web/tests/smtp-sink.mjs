// A mail server for the browser tests that delivers nowhere: it takes every mail Parlour sends
// over SMTP and keeps it, and answers `GET /mails` with them as JSON ([{from, to, raw}], oldest
// first) so that a test can follow the links they carry. web/check.sh starts it before the
// server and points PARLOUR_SMTP_URL at it.
//
//   node tests/smtp-sink.mjs     prints "smtp <port>" and "http <port>" (both free ports)
import { createServer as createTcpServer } from "node:net";
import { createServer as createHttpServer } from "node:http";

const mails = [];

/** One SMTP conversation: just enough of RFC 5321 for lettre, without TLS or auth. */
function converse(socket) {
  let buffer = "";
  let envelope = { from: "", to: [] };
  let data = null; // the lines of a message while DATA is being read
  const say = (line) => socket.write(`${line}\r\n`);
  say("220 sink ESMTP");
  socket.setEncoding("utf8");
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\r\n")) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (data) {
        if (line === ".") {
          mails.push({ ...envelope, raw: data.join("\r\n") });
          envelope = { from: "", to: [] };
          data = null;
          say("250 kept");
        } else {
          // A line that began with "." was sent with another in front of it (dot-stuffing).
          data.push(line.startsWith(".") ? line.slice(1) : line);
        }
        continue;
      }
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === "EHLO") say("250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8");
      else if (verb === "HELO") say("250 sink");
      else if (verb === "MAIL") (envelope.from = address(line), say("250 ok"));
      else if (verb === "RCPT") (envelope.to.push(address(line)), say("250 ok"));
      else if (verb === "RSET") ((envelope = { from: "", to: [] }), say("250 ok"));
      else if (verb === "NOOP") say("250 ok");
      else if (verb === "DATA") ((data = []), say("354 end with a line holding only ."));
      else if (verb === "QUIT") (say("221 bye"), socket.end());
      else say("502 not here");
    }
  });
}

/** The address inside "MAIL FROM:<a@b> SIZE=…" or "RCPT TO:<a@b>". */
function address(line) {
  return /<([^>]*)>/.exec(line)?.[1] ?? "";
}

const smtp = createTcpServer(converse);
const http = createHttpServer((request, response) => {
  if (request.method === "GET" && request.url === "/mails") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(mails));
  } else {
    response.writeHead(404).end();
  }
});
smtp.listen(0, "127.0.0.1", () => {
  http.listen(0, "127.0.0.1", () => {
    console.log(`smtp ${smtp.address().port}`);
    console.log(`http ${http.address().port}`);
  });
});
