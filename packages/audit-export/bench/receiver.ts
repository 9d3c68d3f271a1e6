/**
 * The bench's receiver, in a process of its own so that it does not share the exporter's event
 * loop: verifies each webhook signature and parses the batch; walks each OTLP request's fields to
 * count its LogRecords (a Go collector decodes far faster than protobuf-es's reflection, which
 * would make this receiver the bottleneck) and decodes every 50th fully. Prints its port on
 * stdout; `GET /count` answers the records received so far.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { ExportLogsServiceRequestSchema, SIGNATURE_HEADER, verifySignature } from '@gsp/audit-export';

const secret = process.env.BENCH_SECRET ?? '';
let webhook = 0;
let otlp = 0;
let refused = 0;
let otlpRequests = 0;

/** The occurrences of field `fieldNo` in a message, each length-delimited one handed to `inner`. */
function eachField(bytes: Uint8Array, fieldNo: number, inner: (bytes: Uint8Array) => void): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wire] = reader.tag();
    if (no === fieldNo && wire === WireType.LengthDelimited) inner(reader.bytes());
    else reader.skip(wire, no);
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url === '/count') return res.end(JSON.stringify({ webhook, otlp, refused }));
    if (req.url === '/v1/logs') {
      if (otlpRequests++ % 50 === 0) fromBinary(ExportLogsServiceRequestSchema, body);
      eachField(body, 1, (resourceLogs) =>
        eachField(resourceLogs, 2, (scopeLogs) => eachField(scopeLogs, 2, () => otlp++)),
      );
      return res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    }
    if (!verifySignature(req.headers[SIGNATURE_HEADER] as string | undefined, body, secret, 300_000)) {
      refused++;
      return res.writeHead(401).end();
    }
    webhook += (JSON.parse(body.toString('utf8')) as unknown[]).length;
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
