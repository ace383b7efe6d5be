/*
 * The floor of the SSE fan-out on this machine, for bench/sse: a single-threaded epoll server in
 * C that does nothing but what the benchmark needs, so the time it measures is the kernel's and
 * the subscriber client's, not a server's.
 *
 *   GET  (any path): a stream: 200, the stream headers, chunked, and a ":ping".
 *   POST (any path, Content-Length body): one frame shaped like Vigil's REGISTERED event and
 *        carrying the body goes out with one write() per open stream, then 201.
 *
 * A partial write to a subscriber is not retried: the benchmark's subscribers read. Prints
 * "listening on http://127.0.0.1:PORT" once ready; SIGTERM ends it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 65536
#define IN_BYTES 65536

typedef struct {
  char *in;
  size_t len;
  int stream;
} Conn;

static Conn conns[MAX_FDS];
static int streams[MAX_FDS];
static int stream_count;
static long seq;

static void drop(int ep, int fd) {
  epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
  if (conns[fd].stream) {
    for (int i = 0; i < stream_count; i++) {
      if (streams[i] == fd) {
        streams[i] = streams[--stream_count];
        break;
      }
    }
  }
  free(conns[fd].in);
  memset(&conns[fd], 0, sizeof(Conn));
  close(fd);
}

/* One write() per subscriber of the same chunk, built once. */
static void fan_out(const char *body, size_t body_len) {
  static char frame[IN_BYTES + 512], chunk[IN_BYTES + 1024];
  char stamp[32];
  time_t now = time(NULL);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  seq++;
  int frame_len = snprintf(frame, sizeof frame,
      "id: %ld\ndata: {\"instance\":\"%012lx\",\"version\":0,\"type\":\"REGISTERED\",\"timestamp\":\"%s\",\"registration\":%.*s}\n\n",
      seq, seq, stamp, (int)body_len, body);
  int chunk_len = snprintf(chunk, sizeof chunk, "%x\r\n%.*s\r\n", frame_len, frame_len, frame);
  for (int i = 0; i < stream_count; i++) {
    if (write(streams[i], chunk, chunk_len) < 0 && errno != EAGAIN) {
      /* gone: dropped when its read fails */
    }
  }
}

/* Answers every complete request in the connection's buffer. */
static void handle(int ep, int fd) {
  Conn *c = &conns[fd];
  for (;;) {
    char *head_end = memmem(c->in, c->len, "\r\n\r\n", 4);
    if (!head_end) return;
    size_t head = (size_t)(head_end - c->in) + 4;
    if (strncmp(c->in, "GET ", 4) == 0) {
      static const char open[] =
          "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream;charset=UTF-8\r\ncache-control: no-cache\r\n"
          "x-accel-buffering: no\r\ntransfer-encoding: chunked\r\n\r\n7\r\n:ping\n\n\r\n";
      if (write(fd, open, sizeof open - 1) < 0) {
        drop(ep, fd);
        return;
      }
      c->stream = 1;
      streams[stream_count++] = fd;
      c->len = 0;
      return;
    }
    char *length = strcasestr(c->in, "content-length:");
    size_t body = length && length < head_end ? (size_t)strtoul(length + 15, NULL, 10) : 0;
    if (head + body > IN_BYTES) {
      drop(ep, fd);
      return;
    }
    if (c->len < head + body) return;
    fan_out(c->in + head, body);
    static const char created[] = "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
    if (write(fd, created, sizeof created - 1) < 0) {
      drop(ep, fd);
      return;
    }
    memmove(c->in, c->in + head + body, c->len - head - body);
    c->len -= head + body;
    c->in[c->len] = 0;
  }
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  int one = 1;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t address_len = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 4096) ||
      getsockname(listener, (struct sockaddr *)&address, &address_len)) {
    perror("listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &event);
  printf("listening on http://127.0.0.1:%d\n", ntohs(address.sin_port));
  fflush(stdout);

  struct epoll_event ready[256];
  for (;;) {
    int count = epoll_wait(ep, ready, 256, -1);
    for (int i = 0; i < count; i++) {
      int fd = ready[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          if (client >= MAX_FDS) {
            close(client);
            continue;
          }
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          conns[client].in = malloc(IN_BYTES + 1); /* touched only as far as requests fill it */
          conns[client].in[0] = 0;
          struct epoll_event watch = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(ep, EPOLL_CTL_ADD, client, &watch);
        }
        continue;
      }
      Conn *c = &conns[fd];
      ssize_t got = read(fd, c->in + c->len, IN_BYTES - c->len);
      if (got <= 0) {
        if (got < 0 && errno == EAGAIN) continue;
        drop(ep, fd);
        continue;
      }
      c->len += (size_t)got;
      c->in[c->len] = 0;
      handle(ep, fd);
    }
  }
}
