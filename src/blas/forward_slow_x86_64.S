# Slow path of the forwarding stubs (generated/forwarders_x86_64.S): the slot index is in %r11d.
# Saves every register that can carry an argument (rdi, rsi, rdx, rcx, r8, r9, rax for the
# vector count of variadic calls, xmm0-7), calls gpuopt_blas_forward_resolve(slot), which returns
# the CPU BLAS's function, restores the registers and jumps to it. Stack arguments and the return
# address are untouched, so the callee sees exactly the caller's call.
  .hidden gpuopt_blas_forward_slow
  .hidden gpuopt_blas_forward_resolve
  .text
  .globl gpuopt_blas_forward_slow
  .type gpuopt_blas_forward_slow,@function
  .p2align 4
gpuopt_blas_forward_slow:
  .cfi_startproc
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $192, %rsp
  andq $-16, %rsp
  movq %rdi, 0(%rsp)
  movq %rsi, 8(%rsp)
  movq %rdx, 16(%rsp)
  movq %rcx, 24(%rsp)
  movq %r8, 32(%rsp)
  movq %r9, 40(%rsp)
  movq %rax, 48(%rsp)
  movdqu %xmm0, 64(%rsp)
  movdqu %xmm1, 80(%rsp)
  movdqu %xmm2, 96(%rsp)
  movdqu %xmm3, 112(%rsp)
  movdqu %xmm4, 128(%rsp)
  movdqu %xmm5, 144(%rsp)
  movdqu %xmm6, 160(%rsp)
  movdqu %xmm7, 176(%rsp)
  movl %r11d, %edi
  call gpuopt_blas_forward_resolve
  movq %rax, %r11
  movq 0(%rsp), %rdi
  movq 8(%rsp), %rsi
  movq 16(%rsp), %rdx
  movq 24(%rsp), %rcx
  movq 32(%rsp), %r8
  movq 40(%rsp), %r9
  movq 48(%rsp), %rax
  movdqu 64(%rsp), %xmm0
  movdqu 80(%rsp), %xmm1
  movdqu 96(%rsp), %xmm2
  movdqu 112(%rsp), %xmm3
  movdqu 128(%rsp), %xmm4
  movdqu 144(%rsp), %xmm5
  movdqu 160(%rsp), %xmm6
  movdqu 176(%rsp), %xmm7
  movq %rbp, %rsp
  popq %rbp
  .cfi_def_cfa %rsp, 8
  jmp *%r11
  .cfi_endproc
  .size gpuopt_blas_forward_slow, .-gpuopt_blas_forward_slow
  .section .note.GNU-stack,"",@progbits
