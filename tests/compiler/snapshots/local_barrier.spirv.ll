; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

@local_barrier_local2 = internal addrspace(3) global [16 x float] poison, align 16

define spir_kernel void @local_barrier(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %out, i64 %3, i64 %4, i64 %5) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca float, align 4
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca float, align 4
  br label %b0

b0:                                               ; preds = %entry
  %call = call spir_func i64 @_Z13get_global_idj(i32 0)
  store i64 %call, ptr %l0, align 4
  %call1 = call spir_func i64 @_Z12get_local_idj(i32 0)
  store i64 %call1, ptr %l1, align 4
  %v = load i64, ptr %l0, align 4
  %t = mul i64 %v, 4
  %off = add i64 %0, %t
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off
  %ld = load float, ptr addrspace(1) %p, align 4
  store float %ld, ptr %l2, align 4
  %v2 = load i64, ptr %l1, align 4
  %t3 = mul i64 %v2, 1
  %lin = add i64 0, %t3
  %p4 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin
  %v5 = load float, ptr %l2, align 4
  store float %v5, ptr addrspace(3) %p4, align 4
  call spir_func void @_Z7barrierj(i32 1)
  store i64 15, ptr %l3, align 4
  %v6 = load i64, ptr %l3, align 4
  %v7 = load i64, ptr %l1, align 4
  %sub = sub i64 %v6, %v7
  store i64 %sub, ptr %l4, align 4
  %v8 = load i64, ptr %l4, align 4
  %t9 = mul i64 %v8, 1
  %lin10 = add i64 0, %t9
  %p11 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin10
  %ld12 = load float, ptr addrspace(3) %p11, align 4
  store float %ld12, ptr %l5, align 4
  %v13 = load i64, ptr %l0, align 4
  %t14 = mul i64 %v13, 4
  %off15 = add i64 %3, %t14
  %p16 = getelementptr i8, ptr addrspace(1) %out, i64 %off15
  %v17 = load float, ptr %l5, align 4
  store float %v17, ptr addrspace(1) %p16, align 4
  call spir_func void @_Z7barrierj(i32 1)
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func i64 @_Z12get_local_idj(i32)

declare spir_func void @_Z7barrierj(i32)
